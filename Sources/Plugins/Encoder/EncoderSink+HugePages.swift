import CFFmpeg

extension EncoderSink {
    /// Turns transparent huge pages off for the whole calling process (`prctl(PR_SET_THP_DISABLE)`; inherited
    /// by its children). libx264 asks for huge pages for its frames (`madvise(MADV_HUGEPAGE)`), and each
    /// frame's mapping is then rounded up to 2 MB pages: about 7 MB more resident at 1080p with the default
    /// encoder settings, for no measurable speed (bench/README.md, recording-memory).
    ///
    /// Process-wide, so a library must not do this to its host: only a program that owns its process (the
    /// `pwrecord` CLI does at the start of `record`) should call it. Returns false when the kernel refuses
    /// (before Linux 3.15); nothing changed then.
    @discardableResult
    public static func disableTransparentHugePages() -> Bool {
        cav_set_transparent_huge_pages_disabled(1) == 0
    }
}
