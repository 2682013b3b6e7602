/// The indices of an array's elements or an object's keys.
public struct JSONChildren: Sequence, Sendable {
    let document: JSONDocument
    let first: Int
    let end: Int
    let stride: Int

    public struct Iterator: IteratorProtocol {
        let document: JSONDocument
        var current: Int
        let end: Int
        let stride: Int
        public mutating func next() -> Int? {
            guard current < end else { return nil }
            let node = current
            current = stride == 1 ? document.next(node) : document.next(node + 1)
            return node
        }
    }

    public func makeIterator() -> Iterator {
        Iterator(document: document, current: first, end: end, stride: stride)
    }
}
