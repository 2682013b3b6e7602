import FeedCacheTool

FeedCacheTool.main()
