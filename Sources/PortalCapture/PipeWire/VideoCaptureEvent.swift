/// What a `VideoCaptureStream` reports, in order, ending with exactly one `.ended`.
public enum VideoCaptureEvent: Sendable, Equatable {
    case stateChanged(PipeWireStreamState)
    /// A format was negotiated (first, or after a resize); frames after this one carry it.
    case formatChanged(VideoFormat)
    /// The producer fixated a DMA-BUF modifier that mmap cannot read (not linear): the stream withdrew its
    /// DMA-BUF formats and renegotiates to shared memory.
    case dmaBufRefused(DRMFormatModifier)
    /// The stream ended; nothing follows.
    case ended(PipeWireStreamEndCause)
}
