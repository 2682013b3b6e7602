/// Maps a feed API response to feed images: the case study's `FeedItemsMapper`.
///
/// Valid only with status exactly 200 and a body `{"items":[…]}` whose every
/// item passes `FeedItemRule`.
public enum FeedItemsMapper {
    public static func map(_ response: Response) throws(ErrorRecord) -> [FeedImage] {
        var rule = FeedItemRule()
        var images: [FeedImage] = []
        try MapperSupport.forEachItem(.feed, response) { document, item, bytes throws(MappingRejection) in
            let fields = FeedItemRule.Fields(
                id: MapperSupport.field(document, item, "id", bytes),
                image: MapperSupport.field(document, item, "image", bytes),
                description: MapperSupport.field(document, item, "description", bytes),
                location: MapperSupport.field(document, item, "location", bytes))
            if let rejection = rule.check(fields) { throw .item(position: images.count + 1, rejection) }
            images.append(FeedImage(
                id: MapperSupport.uuid(fields.id),
                description: MapperSupport.text(fields.description),
                location: MapperSupport.text(fields.location),
                url: MapperSupport.text(fields.image) ?? ""))
        }
        return images
    }
}
