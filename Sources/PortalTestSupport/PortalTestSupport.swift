@_exported import PortalCapture
