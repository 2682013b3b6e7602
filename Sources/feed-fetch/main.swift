import FeedFetchTool

FeedFetchTool.main()
