// Users of the built-in sinks get the sink contract and media types with `import Plugins`.
@_exported import PortalCapture
