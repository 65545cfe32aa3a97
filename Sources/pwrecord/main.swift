import PortalCapture
print("pwrecord: not yet implemented")
