import EssentialFeed
import EssentialFeedNetwork
import FeedCLI

/// The response record of a body in the spool, written whole when due
/// without holding the body: whether the body is JSON was checked as it
/// came (`BodyCheck`): then it is written as `body`, its blanks dropped,
/// as `JSONWriter` writes a small one; else as `body_base64`.
struct SpooledRecord {
    /// The record up to its body's value (`…,"body":` or `…,"body_base64":"`).
    let prefix: [UInt8]
    let isJSON: Bool
    /// Where a JSON body's value lies in it, when it has no blanks between
    /// its tokens: then it is copied as it stands, without compacting.
    let compactValue: Range<Int>?
    let body: SpooledBody

    init(url: String, _ response: HTTPResult, _ body: SpooledBody) throws(ErrorRecord) {
        self.body = body
        // The spool's last writes are waited for here: a write that failed
        // (a full disk) is this response's store failure, found before any
        // of its record is written.
        _ = try body.spool.bytes()
        let verdict: BodyCheck.Verdict
        if let check = body.check {
            verdict = check.finish()
        } else {
            // No thread checked it as it came: read it through now (large reads: few system calls).
            var reader = JSONStreamReader(source: try body.spool.bytes(), chunkSize: 1 << 20, maxDepth: Response.maxBodyDepth)
            verdict = try BodyCheck.verdict(of: &reader)
        }
        let json = verdict.isJSON
        isJSON = json
        compactValue = verdict.compactValue
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("url", url)
        writer.member("status", response.status)
        writer.member("final_url", response.finalURL.map(Secrets.redactURL))
        writer.member("etag", response.etag)
        writer.member("last_modified", response.lastModified)
        writer.key(json ? "body" : "body_base64")
        prefix = writer.bytes + (json ? [] : [UInt8(ascii: "\"")])
    }

    /// Writes the whole record, without its newline, to `stream`.
    func write(to stream: Output.RecordStream) throws(ErrorRecord) {
        let emit = stream.write
        var source = try body.spool.bytes()
        prefix.withUnsafeBytes(emit)
        var offset = 0
        // A compact value's bytes in the file go from the file to the
        // output as they lie, when the output takes them so.
        if let value = compactValue, let (file, count) = source.filePart, value.lowerBound < count {
            let end = min(value.upperBound, count)
            if stream.send(file: file, offset: value.lowerBound, count: end - value.lowerBound) {
                source.skip(to: end)
                offset = end
            }
        }
        var chunk = [UInt8](repeating: 0, count: 3 << 18)
        var compactor = JSONCompactor()
        var compacted = [UInt8](repeating: 0, count: isJSON && compactValue == nil ? JSONCompactor.room(for: chunk.count) : 0)
        var encoded: [UInt8] = []
        // Bytes of a base64 body held over from the last read (fewer than
        // three, at the chunk's start): groups of three are encoded whole.
        var carried = 0
        while true {
            var failure: ErrorRecord?
            let n = chunk.withUnsafeMutableBytes { buffer -> Int in
                do throws(ErrorRecord) {
                    return try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[carried...]))
                } catch { failure = error; return 0 }
            }
            if let failure { throw failure }
            if n == 0 { break }
            defer { offset += n }
            if let value = compactValue {
                // The value's bytes in this chunk, as they are.
                let from = max(value.lowerBound, offset) - offset, to = min(value.upperBound, offset + n) - offset
                if from < to { chunk.withUnsafeBytes { emit(UnsafeRawBufferPointer(rebasing: $0[from..<to])) } }
            } else if isJSON {
                let kept = chunk.withUnsafeBytes { read in
                    compacted.withUnsafeMutableBytes { compactor.compact(UnsafeRawBufferPointer(rebasing: read[..<n]), into: $0) }
                }
                compacted.withUnsafeBytes { emit(UnsafeRawBufferPointer(rebasing: $0[..<kept])) }
            } else {
                let count = carried + n, whole = count / 3 * 3
                encoded.removeAll(keepingCapacity: true)
                chunk.withUnsafeBytes { Base64.append(UnsafeRawBufferPointer(rebasing: $0[..<whole]), to: &encoded) }
                encoded.withUnsafeBytes(emit)
                for k in 0..<(count - whole) { chunk[k] = chunk[whole + k] }
                carried = count - whole
            }
        }
        if !isJSON {
            encoded.removeAll(keepingCapacity: true)
            chunk.withUnsafeBytes { Base64.append(UnsafeRawBufferPointer(rebasing: $0[..<carried]), to: &encoded) }
            encoded.append(UInt8(ascii: "\""))
            encoded.withUnsafeBytes(emit)
        }
        Array("}".utf8).withUnsafeBytes(emit)
    }
}
