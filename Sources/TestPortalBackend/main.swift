// pwrecord-test-portal: the portal backend of the headless test desktop (see BackendMain and
// docs/test-desktop.md).
BackendMain.run(arguments: Array(CommandLine.arguments.dropFirst()))
