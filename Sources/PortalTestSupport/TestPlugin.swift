import Foundation

/// Tiny C plugins compiled for a test with the system C compiler against `pwrec_plugin.h`, to exercise what
/// a well-behaved Swift plugin cannot: a wrong ABI version, a short table, a missing entry point, errors, a
/// plugin that blocks, code that runs as soon as the library is loaded.
public enum TestPlugin {
    /// `Sources/CPluginABI`, found from this file's path.
    static var abiHeaderDirectory: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/CPluginABI").path
    }

    public struct Variant: Sendable {
        public var id = "ctest"
        public var abiVersion = "PWREC_SINK_ABI_VERSION"
        public var structSize = "sizeof(pwrec_sink_v1)"
        public var entryBody = "return &table;"
        public var entryName = "pwrec_sink_entry"
        /// The frame sequence at which write_video fails with PWREC_ERR_NO_SPACE (-1: never).
        public var failAt = -1
        /// write_video sleeps this long per frame (a slow plugin), in milliseconds.
        public var sleepMillisecondsPerFrame = 0
        /// write_video sleeps this long once, at the frame with this sequence or the first after it (a stuck plugin).
        public var stallAt: (sequence: Int, milliseconds: Int)?
        /// A file an ELF constructor creates: code that runs the moment the library is loaded, before anything
        /// in it is called.
        public var constructorMarker: String?
        /// The status write_video fails with at `failAt`.
        public var failStatus = "PWREC_ERR_NO_SPACE"

        public init(id: String = "ctest", abiVersion: String = "PWREC_SINK_ABI_VERSION", structSize: String = "sizeof(pwrec_sink_v1)",
                    entryBody: String = "return &table;", entryName: String = "pwrec_sink_entry", failAt: Int = -1) {
            self.id = id
            self.abiVersion = abiVersion
            self.structSize = structSize
            self.entryBody = entryBody
            self.entryName = entryName
            self.failAt = failAt
        }
    }

    /// Compiles `variant` into `directory/name` (mode 0755) and returns the path. `marker` is created by the
    /// plugin's `create`, so a test can tell whether it was called.
    public static func build(_ variant: Variant, name: String, in directory: String, marker: String) throws -> String {
        let source = """
        #include "pwrec_plugin.h"
        #include <stdio.h>
        #include <stdlib.h>
        #include <time.h>
        \(variant.constructorMarker.map { "__attribute__((constructor)) static void loaded(void) { FILE *f = fopen(\"\($0)\", \"w\"); if (f) fclose(f); }" } ?? "")
        static void sleep_ms(long ms) { struct timespec t = { ms / 1000, (ms % 1000) * 1000000L }; while (nanosleep(&t, &t) != 0) {} }
        static int stalled;
        static int32_t create(const pwrec_option *o, uint32_t n, void **s, pwrec_error *e) {
            FILE *f = fopen("\(marker)", "w"); if (f) fclose(f);
            for (uint32_t i = 0; i < n; i++) {
                if (o[i].value[0] == '!') { snprintf(e->option, sizeof e->option, "%s", o[i].key);
                    snprintf(e->message, sizeof e->message, "values may not start with '!'"); return PWREC_ERR_INVALID_OPTION; }
            }
            *s = calloc(1, sizeof(uint64_t)); return PWREC_OK;
        }
        static int32_t open_(void *s, const pwrec_open_params *p, pwrec_error *e) { (void)s; (void)p; (void)e; return PWREC_OK; }
        static int32_t video(void *s, const pwrec_video_frame *f, pwrec_error *e) {
            if ((int64_t)f->sequence == \(variant.failAt)) { snprintf(e->message, sizeof e->message, "disk is full"); return \(variant.failStatus); }
            if (\(variant.sleepMillisecondsPerFrame) > 0) sleep_ms(\(variant.sleepMillisecondsPerFrame));
            if (!stalled && (int64_t)f->sequence >= \(variant.stallAt?.sequence ?? -1) && \(variant.stallAt?.milliseconds ?? 0) > 0) { stalled = 1; sleep_ms(\(variant.stallAt?.milliseconds ?? 0)); }
            *(uint64_t *)s += 1; return PWREC_OK;
        }
        static int32_t close_(void *s, pwrec_sink_result *r, pwrec_error *e) { (void)e; r->video_frames = *(uint64_t *)s; return PWREC_OK; }
        static void destroy(void *s) { free(s); }
        static const pwrec_option_info options[] = { { "mode", "fast", "a test option" } };
        static const pwrec_sink_v1 table = { \(variant.abiVersion), \(variant.structSize), "\(variant.id)", "C test plugin",
            options, 1, create, open_, video, NULL, NULL, close_, destroy };
        const pwrec_sink_v1 *\(variant.entryName)(uint32_t host) { (void)host; \(variant.entryBody) }
        """
        let src = directory + "/" + name + ".c"
        try source.write(toFile: src, atomically: true, encoding: .utf8)
        let out = directory + "/" + name
        let r = try MediaTool.runAny("/usr/bin/cc", ["-shared", "-fPIC", "-Wall", "-Werror", "-I", abiHeaderDirectory, "-o", out, src])
        guard r.status == 0 else { throw ToolError("cc failed: \(r.stderr)") }
        try FileManager.default.removeItem(atPath: src)
        chmod(out, 0o755)
        return out
    }
}
