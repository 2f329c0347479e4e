# about: @retry(3) calls retry from the module, then the decorator it returned with the function
# path: app.py
def retry(times):
    def decorator(f):
        def wrapper():
            for _ in range(times):
                result = f()
                #        ^ calls: app.fetch
            return result

        return wrapper

    return decorator


@retry(3)
#^ calls: app.retry
#^ calls: app.retry.decorator
def fetch():
    return "data"


fetch()
#^ calls: app.retry.decorator.wrapper
