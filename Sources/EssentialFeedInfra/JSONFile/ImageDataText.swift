#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import EssentialFeed

/// Image data as this store writes it: base64 text.
enum ImageDataText {
    static func encode(_ data: [UInt8]) -> [UInt8] {
        Array(Data(data).base64EncodedString().utf8)
    }

    /// The text of `data` handed to `body` in pieces, each of 3 MiB of data
    /// (a multiple of 3 bytes, so the pieces join into the one text): a big
    /// image is never held as text whole.
    static func encode(_ data: [UInt8], inPieces body: ([UInt8]) throws(ErrorRecord) -> Void) throws(ErrorRecord) {
        let piece = 3 << 20
        var start = 0
        repeat {
            let end = min(data.count, start + piece)
            try body(Array(Data(data[start..<end]).base64EncodedString().utf8))
            start = end
        } while start < data.count
    }
}
