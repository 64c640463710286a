// What an executable built on ServiceKit needs without importing the libraries itself.
@_exported import protocol ServiceLifecycle.Service
