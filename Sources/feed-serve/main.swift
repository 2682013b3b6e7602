import FeedServeTool

FeedServeTool.main()
