import ReldateTool

ReldateTool.main()
