import FeedPaginateTool

FeedPaginateTool.main()
