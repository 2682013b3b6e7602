/// Maps a feed API response to feed images: the case study's `FeedItemsMapper`.
///
/// Valid only with status exactly 200 and a body `{"items":[…]}` whose every
/// item has a UUID `id`, an absolute URL `image` and optional string
/// `description` and `location` (`null` counts as absent).
public enum FeedItemsMapper {
    public static func map(_ response: Response) throws(ErrorRecord) -> [FeedImage] {
        guard response.status == 200 else {
            throw ErrorRecord(.invalidData, "feed response status \(response.status) is not 200", context: response.errorContext)
        }
        let (document, body) = try response.jsonBody()
        var images: [FeedImage] = []
        try MapperSupport.forEachItem(document, body, response) { (item, position) throws(ErrorRecord) in
            func fail(_ what: String) -> ErrorRecord {
                ErrorRecord(.invalidData, "feed item \(position): \(what)", context: response.errorContext)
            }
            let id = try MapperSupport.uuid(document, item, "id", fail)
            guard let imageNode = document.member(item, "image") else { throw fail("no image") }
            guard let image = document.string(imageNode), Identifiers.isAbsoluteURL(image) else {
                throw fail("image is not an absolute URL")
            }
            let description = try MapperSupport.optionalString(document, item, "description", fail)
            let location = try MapperSupport.optionalString(document, item, "location", fail)
            images.append(FeedImage(id: id, description: description, location: location, url: image))
        }
        return images
    }
}
