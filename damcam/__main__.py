from damcam.cli import main

main()
