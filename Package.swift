// swift-tools-version:6.0
// pwrecord: ReplayKit for the Linux desktop. See README.md and docs/.
import PackageDescription

let package = Package(
    name: "pwrecord",
    products: [
        .library(name: "PortalCapture", targets: ["PortalCapture"]),
        .library(name: "Plugins", targets: ["Plugins"]),
        .executable(name: "pwrecord", targets: ["pwrecord"]),
        // The portal backend that stands where GNOME's or KDE's would on the headless test desktop.
        .executable(name: "pwrecord-test-portal", targets: ["TestPortalBackend"]),
        // An example third-party sink, built as a loadable plugin against the C ABI only.
        .library(name: "ExampleSinkPlugin", type: .dynamic, targets: ["ExampleSinkPlugin"]),
    ],
    targets: [
        // C libraries from Debian's -dev packages; thin prefixed shims live in each umbrella header.
        .systemLibrary(name: "CPipeWire", pkgConfig: "libpipewire-0.3",
                       providers: [.apt(["libpipewire-0.3-dev", "libspa-0.2-dev"])]),
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        .systemLibrary(name: "CFFmpeg", pkgConfig: "libavformat",
                       providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev"])]),
        .systemLibrary(name: "CLibYUV", providers: [.apt(["libyuv-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        // The versioned C ABI for third-party sink plugins (header only).
        .systemLibrary(name: "CPluginABI"),

        .target(name: "PortalCapture", dependencies: ["CPipeWire", "CDBus", "CPNG", "CPluginABI"]),
        .target(name: "Plugins", dependencies: ["PortalCapture", "CFFmpeg", "CLibYUV", "CPNG", "CPluginABI"]),
        .executableTarget(name: "pwrecord", dependencies: ["PortalCapture", "Plugins"]),

        // Test content (colour areas, frame counter, scrolling page, cursor) shared by the test backend and tests.
        .target(name: "PortalTestSupport", dependencies: ["PortalCapture"]),
        .executableTarget(name: "TestPortalBackend", dependencies: ["PortalCapture", "PortalTestSupport", "CPipeWire"]),
        .target(name: "ExampleSinkPlugin", dependencies: ["CPluginABI"]),
        // A child process for sink tests that kill a recording mid-way (crash safety of the files), and the
        // encoder benchmark's driver (bench/encoder/run).
        .executableTarget(name: "SinkTestHelper", dependencies: ["Plugins", "PortalTestSupport"]),
        // The capture and recording-memory benchmarks' driver (bench/capture/run, bench/recording-memory/run).
        .executableTarget(name: "pwrecord-bench", dependencies: ["PortalCapture", "Plugins", "PortalTestSupport"],
                          path: "bench/Sources/pwrecord-bench"),

        .testTarget(name: "PortalCaptureTests", dependencies: ["PortalCapture", "PortalTestSupport", "CPipeWire", "CDBus"]),
        .testTarget(name: "PluginsTests", dependencies: ["Plugins", "PortalCapture", "PortalTestSupport", "SinkTestHelper"]),
        .testTarget(name: "RecorderTests", dependencies: ["Plugins", "PortalCapture", "PortalTestSupport"]),
        .testTarget(name: "pwrecordTests", dependencies: ["pwrecord", "PortalCapture", "PortalTestSupport"]),
    ]
)
