// Built-in sinks: see the Sinks issue. This file keeps the target non-empty until they land.
@_exported import PortalCapture
