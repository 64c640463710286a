import Foundation
import HeraldDomain
import HeraldModel
import HeraldSources
import Encryption
import ServiceKit
import Testing

struct TemplateTests {
    typealias S = PayloadSamples
    typealias Template = AppConfiguration.Template

    static let renderer = TemplateRenderer(templates: [
        "message.created": [
            "et": Template(title: "{user} ({channel})", body: "{text}"),
            "et-EE": Template(title: "{user} @ {channel}", body: "{text}"),
            "en": Template(title: "{user} in {channel}", body: "{text}"),
        ],
        "message.created.image": ["et": Template(title: "{user}", body: "Pilt")],
        "auth": ["default": Template(title: "Login", body: "{requestor} asks you to log in")],
    ], sources: .herald)

    struct LocaleCase: Sendable, CustomTestStringConvertible {
        var locale: String?
        var title: String
        var testDescription: String { locale ?? "no locale" }
    }

    @Test(arguments: [
        LocaleCase(locale: "et-EE", title: "Ann @ Design"),
        LocaleCase(locale: "et_EE", title: "Ann @ Design"),
        LocaleCase(locale: "et-FI", title: "Ann (Design)"),
        LocaleCase(locale: "et", title: "Ann (Design)"),
        LocaleCase(locale: "de-DE", title: "Ann in Design"),
        LocaleCase(locale: nil, title: "Ann in Design"),
    ])
    func aTemplateFallsBackFromTheFullLocaleToTheLanguageToEnglish(_ sample: LocaleCase) throws {
        let alert = try Self.renderer.render(
            .template(name: "message.created", args: ["user": "Ann", "channel": "Design", "text": "Hi"]),
            locale: sample.locale, context: [:], data: [:])
        #expect(alert?.title == sample.title)
        #expect(alert?.body == "Hi")
    }

    @Test func theDefaultLocaleEntryServesLocalesWithoutTheirOwn() throws {
        let alert = try Self.renderer.render(.template(name: "auth", args: [:]), locale: "lv", context: ["requestor": "Bank"], data: [:])
        #expect(alert == DispatchRequest.Notification(title: "Login", body: "Bank asks you to log in"))
    }

    @Test func withoutAnAppTemplateTheBuiltInChatTemplatesApply() throws {
        let renderer = TemplateRenderer(sources: .herald)
        let args = ["user": "Ann", "channel": "Design", "text": "Lunch?"]
        #expect(try renderer.render(.template(name: "channel.created", args: args), locale: "fr", context: [:], data: [:])
                == .init(title: "Design", body: "You're now member of Design!"))
        #expect(try renderer.render(.template(name: "member.joined", args: args), locale: "fr", context: [:], data: [:])
                == .init(title: "Ann", body: "Ann has joined Design"))
        #expect(try renderer.render(.template(name: "message.created", args: args), locale: "fr", context: [:], data: [:])
                == .init(title: "Ann (Design)", body: "Lunch?"))
    }

    @Test(arguments: [("text", "Lunch?"), ("image", "Image Message"), ("custom", "Special message")])
    func theMessageBodyFollowsTheMessageType(type: String, body: String) throws {
        let alert = try TemplateRenderer(sources: .herald).render(
            .template(name: "message.created", args: ["user": "Ann", "channel": "Design", "text": "Lunch?", "messageType": type]),
            locale: "en", context: [:], data: [:])
        #expect(alert?.body == body)
    }

    @Test func anAppCanOverrideTheTemplateOfOneMessageTypeAndLocale() throws {
        let alert = try Self.renderer.render(
            .template(name: "message.created", args: ["user": "Ann", "messageType": "image"]), locale: "et-EE", context: [:], data: [:])
        #expect(alert == .init(title: "Ann", body: "Pilt"))
        let english = try Self.renderer.render(
            .template(name: "message.created", args: ["user": "Ann", "channel": "D", "messageType": "image"]), locale: "en", context: [:], data: [:])
        #expect(english?.body == "Image Message")
    }

    @Test func placeholdersComeFromArgsThenContextThenDataAndUnknownOnesAreEmpty() {
        let text = TemplateRenderer.Template(title: "{a}|{b}|{c}|{missing}|{ spaced }|{", body: nil)
        let renderer = TemplateRenderer(templates: ["t": ["en": text]])
        let alert = try? renderer.render(.template(name: "t", args: ["a": "arg"]), locale: "en", context: ["a": "ctx", "b": "ctx"], data: ["a": "d", "b": "d", "c": "data"])
        #expect(alert?.title == "arg|ctx|data||{ spaced }|{")
    }

    @Test func anUnknownTemplateFailsTheDeliveryWithItsName() {
        #expect {
            try TemplateRenderer(sources: .herald).render(.template(name: "nope", args: [:]), locale: "en", context: [:], data: [:])
        } throws: {
            ($0 as? PayloadFailure)?.reason == .unknownTemplate && "\($0)".contains("nope")
        }
    }

    @Test func aLiteralAlertIsUsedAsGiven() throws {
        #expect(try TemplateRenderer(sources: .herald).render(.literal(title: "{x}", body: nil), locale: nil, context: ["x": "y"], data: [:])
                == .init(title: "{x}", body: nil))
    }
}
