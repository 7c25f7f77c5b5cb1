import ReduxConsumer
import Testing

struct ActionRelayTests {
    @Test func listenersHearReducedActionsAfterSubscribersInOrder() {
        let relay = ActionRelay()
        let global = makeRootStore()
        global.addMiddleware(relay.middleware())
        let log = Recorder<String>()
        let subscription = global.subscribe { _, new in log.append("state: \(new.foreground)") }
        let first = relay.subscribe { log.append("first: \($0)") }
        let second = relay.subscribe { log.append("second: \($0)") }

        global.dispatch(LifecycleAction.enterForeground)
        first.cancel()
        global.dispatch(LifecycleAction.enterBackground)

        #expect(
            log.values == [
                "state: true", "first: enterForeground", "second: enterForeground",
                "state: false", "second: enterBackground",
            ]
        )
        #expect(relay.listenerCount == 1)
        subscription.cancel()
        second.cancel()
        #expect(relay.listenerCount == 0)
    }

    @Test func swallowedActionsAreNotRelayed() {
        let relay = ActionRelay()
        let swallowAuth: Middleware<RootState> = { _, _ in
            { next in
                { action in
                    if !(action is AuthAction) { next(action) }
                }
            }
        }
        let global = makeRootStore(middleware: [swallowAuth])
        global.addMiddleware(relay.middleware())
        let heard = Recorder<String>()
        let subscription = relay.subscribe { heard.append("\($0)") }

        global.dispatch(AuthAction.logIn("son"))
        global.dispatch(LifecycleAction.enterForeground)

        #expect(heard.values == ["enterForeground"])
        subscription.cancel()
    }
}
