/// What a page needs to show image data inline: its media type and its size
/// in pixels, read from the data's own header (PNG, JPEG, GIF, WebP). Pure:
/// bytes in, answer out; nothing is decoded past the header.
public struct ImageFormat: Equatable, Sendable {
    /// e.g. `image/png`.
    public let mediaType: String
    public let width: Int
    public let height: Int

    public init(mediaType: String, width: Int, height: Int) {
        self.mediaType = mediaType
        self.width = width
        self.height = height
    }

    /// The format of `bytes`, or nil when they are not a PNG, JPEG, GIF or
    /// WebP image whose header gives a size of at least 1×1 pixel.
    public static func sniff(_ bytes: [UInt8]) -> ImageFormat? {
        let format = png(bytes) ?? jpeg(bytes) ?? gif(bytes) ?? webp(bytes)
        guard let format, format.width > 0, format.height > 0 else { return nil }
        return format
    }

    /// The media type an image URL's path names by its extension (`.png`,
    /// `.jpg`, …, in any case; the query and fragment aside); nil when it
    /// names none this knows.
    public static func mediaType(ofURL url: String) -> String? {
        let path = url.prefix { $0 != "?" && $0 != "#" }
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        switch path[path.index(after: dot)...].lowercased() {
        case "png": return "image/png"
        case "jpg", "jpeg", "jpe": return "image/jpeg"
        case "gif": return "image/gif"
        case "webp": return "image/webp"
        case "avif": return "image/avif"
        case "svg": return "image/svg+xml"
        default: return nil
        }
    }

    private static func big16(_ b: [UInt8], _ at: Int) -> Int { Int(b[at]) << 8 | Int(b[at + 1]) }
    private static func big32(_ b: [UInt8], _ at: Int) -> Int { big16(b, at) << 16 | big16(b, at + 2) }
    private static func little16(_ b: [UInt8], _ at: Int) -> Int { Int(b[at]) | Int(b[at + 1]) << 8 }
    private static func little24(_ b: [UInt8], _ at: Int) -> Int { little16(b, at) | Int(b[at + 2]) << 16 }

    private static func starts(_ b: [UInt8], _ prefix: [UInt8], at offset: Int = 0) -> Bool {
        b.count >= offset + prefix.count && Array(b[offset..<offset + prefix.count]) == prefix
    }

    /// The signature, then the IHDR chunk first: width and height, 4 bytes each.
    private static func png(_ b: [UInt8]) -> ImageFormat? {
        guard starts(b, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), starts(b, Array("IHDR".utf8), at: 12), b.count >= 24 else { return nil }
        return ImageFormat(mediaType: "image/png", width: big32(b, 16), height: big32(b, 20))
    }

    /// Markers up to the first start of frame (SOF0–SOF15 but DHT, JPG, DAC),
    /// whose height and width follow its precision byte.
    private static func jpeg(_ b: [UInt8]) -> ImageFormat? {
        guard starts(b, [0xFF, 0xD8, 0xFF]) else { return nil }
        var at = 2
        while at + 4 <= b.count {
            guard b[at] == 0xFF else { return nil }
            let marker = b[at + 1]
            if marker == 0xFF { at += 1; continue }  // fill byte
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { at += 2; continue }  // no length
            let length = big16(b, at + 2)
            guard length >= 2 else { return nil }
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard at + 9 <= b.count else { return nil }
                return ImageFormat(mediaType: "image/jpeg", width: big16(b, at + 7), height: big16(b, at + 5))
            }
            if marker == 0xD9 || marker == 0xDA { return nil }  // end, or scan data before any frame
            at += 2 + length
        }
        return nil
    }

    /// The logical screen's width and height, little-endian.
    private static func gif(_ b: [UInt8]) -> ImageFormat? {
        guard starts(b, Array("GIF87a".utf8)) || starts(b, Array("GIF89a".utf8)), b.count >= 10 else { return nil }
        return ImageFormat(mediaType: "image/gif", width: little16(b, 6), height: little16(b, 8))
    }

    /// RIFF….WEBP, then a VP8 (lossy), VP8L (lossless) or VP8X (extended) chunk.
    private static func webp(_ b: [UInt8]) -> ImageFormat? {
        guard starts(b, Array("RIFF".utf8)), starts(b, Array("WEBP".utf8), at: 8), b.count >= 30 else { return nil }
        let type = "image/webp"
        if starts(b, Array("VP8 ".utf8), at: 12) {
            guard starts(b, [0x9D, 0x01, 0x2A], at: 23) else { return nil }
            return ImageFormat(mediaType: type, width: little16(b, 26) & 0x3FFF, height: little16(b, 28) & 0x3FFF)
        }
        if starts(b, Array("VP8L".utf8), at: 12) {
            guard b[20] == 0x2F else { return nil }
            let bits = Int(b[21]) | Int(b[22]) << 8 | Int(b[23]) << 16 | Int(b[24]) << 24
            return ImageFormat(mediaType: type, width: (bits & 0x3FFF) + 1, height: ((bits >> 14) & 0x3FFF) + 1)
        }
        if starts(b, Array("VP8X".utf8), at: 12) {
            return ImageFormat(mediaType: type, width: little24(b, 24) + 1, height: little24(b, 27) + 1)
        }
        return nil
    }
}
