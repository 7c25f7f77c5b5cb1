@testable import ReduxConsumer
