/// Maps an image comments API response to comments: the case study's `ImageCommentsMapper`.
///
/// Valid only with a status from 200 through 299 and a body `{"items":[…]}`
/// whose every item has a UUID `id`, a string `message`, an ISO 8601
/// `created_at` and `author.username`.
public enum ImageCommentsMapper {
    public static func map(_ response: Response) throws(ErrorRecord) -> [ImageComment] {
        guard (200...299).contains(response.status) else {
            throw ErrorRecord(.invalidData, "comments response status \(response.status) is not 2xx", context: response.errorContext)
        }
        let (document, body) = try response.jsonBody()
        var comments: [ImageComment] = []
        try MapperSupport.forEachItem(document, body, response) { (item, position) throws(ErrorRecord) in
            func fail(_ what: String) -> ErrorRecord {
                ErrorRecord(.invalidData, "comment \(position): \(what)", context: response.errorContext)
            }
            let id = try MapperSupport.uuid(document, item, "id", fail)
            guard let messageNode = document.member(item, "message"), let message = document.string(messageNode) else {
                throw fail("message is missing or not a string")
            }
            guard let dateNode = document.member(item, "created_at"), let dateText = document.string(dateNode) else {
                throw fail("created_at is missing or not a string")
            }
            guard let createdAt = Timestamp(iso8601: dateText) else {
                throw fail("created_at is not an ISO 8601 date")
            }
            guard let author = document.member(item, "author"), document.kind(author) == .object else {
                throw fail("author is missing or not an object")
            }
            guard let usernameNode = document.member(author, "username"), let username = document.string(usernameNode) else {
                throw fail("author.username is missing or not a string")
            }
            comments.append(ImageComment(id: id, message: message, createdAt: createdAt, username: username))
        }
        return comments
    }
}
