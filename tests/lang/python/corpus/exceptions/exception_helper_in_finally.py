# about: calls inside try, except, else and finally blocks
# path: main.py
def risky():
    return 1


def recover():
    pass


def done():
    pass


def cleanup():
    pass


def run():
    try:
        risky()
       #^ calls: main.risky
    except ValueError:
        recover()
       #^ calls: main.recover [static]
    else:
        done()
       #^ calls: main.done
    finally:
        cleanup()
       #^ calls: main.cleanup


run()
#^ calls: main.run
