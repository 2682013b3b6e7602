/// A first-in, first-out queue on an array: taking from the front moves an
/// index, and the taken elements' room is given back once they are most of
/// the array (or all of it), so each element is moved at most once more.
public struct FIFO<Element> {
    private var elements: [Element] = []
    private var first = 0

    public init() {}

    public var isEmpty: Bool { first == elements.count }
    public var count: Int { elements.count - first }

    public mutating func append(_ element: Element) {
        elements.append(element)
    }

    /// The first element, removed; nil when there is none.
    public mutating func popFirst() -> Element? {
        guard first < elements.count else { return nil }
        let element = elements[first]
        first += 1
        if first == elements.count {
            elements.removeAll(keepingCapacity: true)
            first = 0
        } else if first >= 64, first * 2 >= elements.count {
            elements.removeFirst(first)
            first = 0
        }
        return element
    }
}
