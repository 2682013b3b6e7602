/// Maps an image comments API response to comments: the case study's `ImageCommentsMapper`.
///
/// Valid only with a status from 200 through 299 and a body `{"items":[…]}`
/// whose every item passes `ImageCommentRule`.
public enum ImageCommentsMapper {
    public static func map(_ response: Response) throws(ErrorRecord) -> [ImageComment] {
        var rule = ImageCommentRule()
        var comments: [ImageComment] = []
        try MapperSupport.forEachItem(.comments, response) { document, item, bytes throws(MappingRejection) in
            let author = document.member(item, "author")
            let fields = ImageCommentRule.Fields(
                id: MapperSupport.field(document, item, "id", bytes),
                message: MapperSupport.field(document, item, "message", bytes),
                createdAt: MapperSupport.field(document, item, "created_at", bytes),
                username: author.map { MapperSupport.field(document, $0, "username", bytes) } ?? ItemField(),
                authorIsObject: author.map { document.kind($0) == .object } ?? false)
            if let rejection = rule.check(fields) { throw .item(position: comments.count + 1, rejection) }
            comments.append(ImageComment(
                id: MapperSupport.uuid(fields.id),
                message: MapperSupport.text(fields.message) ?? "",
                createdAt: MapperSupport.date(fields.createdAt),
                username: MapperSupport.text(fields.username) ?? ""))
        }
        return comments
    }
}
