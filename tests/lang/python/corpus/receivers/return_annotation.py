# about: the return annotation of a factory types the value it returns
# path: app.py
class Client:
    def get(self, url):
        return url


def make_client() -> "Client":
    return Client()
    #      ^ calls: app.Client


def run():
    c = make_client()
    #   ^ calls: app.make_client
    return c.get("/")
    #        ^ calls: app.Client.get


run()
#^ calls: app.run
