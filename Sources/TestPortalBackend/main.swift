print("pwrecord-test-portal: not yet implemented")
