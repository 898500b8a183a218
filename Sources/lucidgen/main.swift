import LucidGenCLI

LucidGen.main()
