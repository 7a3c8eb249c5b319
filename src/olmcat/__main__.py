from olmcat.cli import main

main()
