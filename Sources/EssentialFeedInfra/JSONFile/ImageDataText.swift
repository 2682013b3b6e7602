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
}
