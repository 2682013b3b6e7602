// feed-cache with the PostgreSQL store: what feed-cache runs in its place
// when the store is a postgresql:// or postgres:// URI (see FeedCacheTool).
import EssentialFeedPostgreSQL
import FeedCacheTool

FeedCacheTool.main(postgreSQL: { uri, wait in PostgreSQLFeedStore(uri: uri, wait: wait) })
