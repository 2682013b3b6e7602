import CommentsMapTool

CommentsMapTool.main()
