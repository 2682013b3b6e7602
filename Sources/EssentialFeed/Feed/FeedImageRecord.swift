/// Reading a feed image record back: `{"id","description"?,"location"?,"url"}`.
extension FeedImage {
    /// Why a response record (one with a `status`) is not taken where feed
    /// image records are: what it is, and what to put before the tool.
    public static let responseNotMapped = "a response record (put feed-map before this tool)"

    /// Reads the feed image record at `object`. Throws `invalid_data` naming the field.
    public init(record document: JSONDocument, _ object: Int = 0) throws(ErrorRecord) {
        func fail(_ what: String) -> ErrorRecord { ErrorRecord(.invalidData, "not a feed image record: \(what)") }
        guard let idNode = document.member(object, "id"), let idText = document.string(idNode),
              let id = Identifiers.uuid(idText) else {
            // feed-fetch's output saved or shown without feed-map between.
            if document.member(object, "status") != nil { throw fail(Self.responseNotMapped) }
            throw fail("id is missing or not a UUID")
        }
        guard let urlNode = document.member(object, "url"), let url = document.string(urlNode),
              Identifiers.isAbsoluteURL(url) else { throw fail("url is missing or not an absolute URL") }
        func optional(_ key: String) throws(ErrorRecord) -> String? {
            guard let node = document.member(object, key), document.kind(node) != .null else { return nil }
            guard let value = document.string(node) else { throw fail("\(key) is not a string") }
            return value
        }
        self.init(id: id, description: try optional("description"), location: try optional("location"), url: url)
    }
}
