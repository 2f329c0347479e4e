from codeimpact.cli import run

run()
