"""A tiny app the example transcript edits."""


def greet(name):
    return "Hello, " + name


def main():
    print(greet("world"))


if __name__ == "__main__":
    main()
