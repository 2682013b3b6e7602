import FeedMapTool

FeedMapTool.main()
