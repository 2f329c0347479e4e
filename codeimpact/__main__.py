from codeimpact.cli import main

main()
