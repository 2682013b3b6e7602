import FeedViewTool

FeedViewTool.main()
