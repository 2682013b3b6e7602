/// Text compared byte for byte (its UTF-8), where `String` compares by
/// Unicode's canonical equivalence ("é" and "e" with U+0301 are one
/// `String`): two URLs that differ in their bytes name two resources (RFC
/// 3986, 6.2.1), and were taken for one (one fetched for both, the other's
/// data never stored, or looked for and "found": found by the hunt).
public struct ExactText: Hashable, Sendable {
    public let text: String

    public init(_ text: String) { self.text = text }

    public static func == (a: ExactText, b: ExactText) -> Bool {
        a.text.utf8.elementsEqual(b.text.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
