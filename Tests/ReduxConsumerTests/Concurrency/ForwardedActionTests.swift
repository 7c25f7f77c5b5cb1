import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// A global action forwarded into a page is heard by the page as the action itself: its effects
/// start on it, as on the page's own actions.
struct ForwardedActionTests {
    @Test func aForwardedActionStartsThePagesEffects() async {
        let global = makeRootStore()
        let started = Recorder<String>()
        let logOutEffect = Effect<MainState>.on(AuthAction.self) { action, _ in
            started.append("\(action)")
        }
        let page = PageStore(
            global: global, initialState: { _ in MainState() }, reducer: mainReducer, effects: [logOutEffect])
        page.forwardActions { $0 is AuthAction }

        await global.send(AuthAction.logOut)
        await page.effectsIdle()

        #expect(started.values == ["logOut"])
        #expect(page.state.count == 0)
        page.close()
    }
}
