# about: g = f; g() calls f
# path: app.py
def compute():
    return 1


def run():
    fn = compute
    other = fn
    return other()
    #      ^ calls: app.compute


run()
#^ calls: app.run
