

/// Where a streaming mapper's output goes. Items of a response are held
/// until the response is known valid (`commit`) or not (`discard`), so an
/// invalid response never yields partial output.
public protocol MappedRecordSink: AnyObject {
    /// Mapped records of the current response: compact JSON, each followed
    /// by a newline. The bytes are valid only during the call.
    func items(_ lines: UnsafeRawBufferPointer)
    /// The current response was valid: write its items.
    func commit()
    /// The current response was invalid: drop its items.
    func discard()
    /// An error record met on input, written through unchanged.
    func passThrough(_ line: ArraySlice<UInt8>, kind: ErrorKind)
    /// A failure: an invalid response or line.
    func fail(_ error: ErrorRecord)
}
