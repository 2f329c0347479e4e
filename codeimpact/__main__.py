from codeimpact.console import run

run()
