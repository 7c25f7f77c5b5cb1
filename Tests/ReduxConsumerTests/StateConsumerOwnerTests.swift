import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

struct StateConsumerOwnerTests {
    @Test func ownerFormDoesNotKeepTheOwnerAlive() {
        let global = makeRootStore()
        let consumer = StateConsumer<RootState>()
        let subscription = global.subscribe(consumer)
        let log = Recorder<String>()
        var owner: LoggingOwner? = LoggingOwner(log: log)
        weak let weakOwner = owner
        consumer.add(\.foreground, owner: owner!) { owner, old, new in
            owner.log.append("foreground: \(old) → \(new)")
        }
        global.dispatch(LifecycleAction.enterForeground)

        owner = nil
        #expect(weakOwner == nil)
        // Inert at once: no longer counted; removed for good at its next change.
        #expect(consumer.count == 0)
        global.dispatch(LifecycleAction.enterBackground)

        #expect(log.values == ["foreground: false → true"])
        #expect(consumer.count == 0)
        subscription.cancel()
    }

    @Test func ownerFormPassesTheOwnerAndFiresInstantly() {
        let global = makeRootStore(RootState(foreground: true))
        let consumer = StateConsumer<RootState>()
        let subscription = global.subscribe(consumer)
        let owner = LoggingOwner(log: Recorder())
        consumer.add({ $0.auth.user ?? "nobody" }, owner: owner, options: .instantly) { owner, old, new in
            owner.log.append("user: \(old) → \(new)")
        }
        consumer.add(\.foreground, owner: owner, options: .instantly) { owner, old, new in
            owner.log.append("foreground: \(old) → \(new)")
        }

        global.dispatch(AuthAction.logIn("son"))

        #expect(owner.log.values == ["user: nobody → nobody", "foreground: true → true", "user: nobody → son"])
        subscription.cancel()
    }

    @Test func ownerFormTokenInTheOwnersBagRemovesTheConsumerWithTheOwner() {
        let global = makeRootStore()
        let screen = MainScreen(global: global, log: Recorder())
        var badge: CountBadge? = CountBadge(name: "badge", page: screen.page, log: Recorder())
        weak let weakBadge = badge
        #expect(screen.page.consumer.count == 2)

        badge = nil

        #expect(weakBadge == nil)
        #expect(screen.page.consumer.count == 1)
    }
}
