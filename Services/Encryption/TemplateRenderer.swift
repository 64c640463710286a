import HeraldDomain
import HeraldModel
import ServiceKit

/// Renders an alert for a device: a literal alert as given, or a template chosen by name
/// and the device's locale, with `{placeholder}`s filled from the alert's arguments, then
/// the event's context, then its data; `{placeholder|words}` is filled with `words` where the
/// value is missing or empty (an unnamed channel, an actor without a display name, an empty
/// text). A title that renders empty is left out.
///
/// Lookup, for template `name` and locale `et-EE`: the app's templates for `et-EE`, `et`,
/// `default`, `en`; then Herald's built-in template. With an argument `messageType`
/// (`image`, `file`, ...), `name.messageType` is looked up first, so an image message can
/// have its own text, then (for any type but `text`) `name.other`: Upstra's "Special
/// message" for a message that is neither text nor image.
public struct TemplateRenderer: Sendable {
    public typealias Template = AppConfiguration.Template

    /// Herald's own templates, whatever the sources: the neutral alert of encrypted iOS pushes,
    /// and the placeholder of extension-decoded ones.
    public static let heraldTemplates: [String: Template] = [
        encryptedTemplate: Template(title: nil, body: "New notification"),
        placeholderTemplate: Template(title: nil, body: "New notification"),
    ]

    /// The templates an app need not write: Herald's own and each source's (the chat
    /// defaults, the alerts an iPhone shows for a sign-in request and an Evernym message).
    public let builtIn: [String: Template]

    /// The variant of a template for a message of any type but text and those with their own
    /// (a source's `<name>.other`).
    public static let otherType = "other"

    /// The template name of the neutral alert shown on iOS for an encrypted push; apps can
    /// override it like any other template.
    public static let encryptedTemplate = "herald.encrypted"

    /// The template name of the placeholder alert of an iOS push without an alert whose
    /// integration decodes it in a notification service extension (which replaces it).
    public static let placeholderTemplate = "herald.placeholder"

    /// The app's templates: by name, then locale.
    public let templates: [String: [String: Template]]

    public init(templates: [String: [String: Template]] = [:], sources: SourceRegistry = SourceRegistry()) {
        self.templates = templates
        builtIn = sources.templates.merging(Self.heraldTemplates) { $1 }
    }

    /// The title and body to show, or nil when the alert is nil.
    public func render(_ alert: Alert?, locale: String?, context: [String: String], data: [String: String]) throws(PayloadFailure) -> DispatchRequest.Notification? {
        switch alert {
        case nil:
            return nil
        case .literal(let title, let body):
            return DispatchRequest.Notification(title: title, body: body)
        case .template(let name, let args):
            var names = [name]
            if let type = args["messageType"] ?? context["messageType"] ?? data["messageType"], !type.isEmpty {
                names.insert(contentsOf: ["\(name).\(type)"] + (type == "text" ? [] : ["\(name).\(Self.otherType)"]), at: 0)
            }
            guard let template = names.lazy.compactMap({ self.template(named: $0, locale: locale) }).first else {
                throw PayloadFailure(.unknownTemplate, "no template \"\(name)\" for locale \(locale ?? "-") in the app's configuration or Herald's built-ins")
            }
            func value(_ key: String) -> String? { args[key] ?? context[key] ?? data[key] }
            return DispatchRequest.Notification(
                title: template.title.map { Self.fill($0, value) }.flatMap { $0.isEmpty ? nil : $0 },
                body: template.body.map { Self.fill($0, value) })
        }
    }

    /// The alert of an event that brings none, when the app renders one: its template
    /// `<source>.<kind>` (e.g. `evernym.message`, filled from the event's context and data,
    /// so `{msgSenderName}` names who sent an Evernym message). Nil when the app has none.
    public func appAlert(source: EventSource, kind: String) -> Alert? {
        let name = "\(source.rawValue).\(kind)"
        return templates[name] == nil ? nil : .template(name: name, args: [:])
    }

    /// The template `name` for `locale`, following the lookup order above.
    public func template(named name: String, locale: String?) -> Template? {
        if let byLocale = templates[name] {
            for candidate in Self.localeCandidates(locale) {
                if let template = byLocale[candidate] { return template }
            }
        }
        return builtIn[name]
    }

    /// `et_EE` → [`et-EE`, `et`, `default`, `en`].
    static func localeCandidates(_ locale: String?) -> [String] {
        var candidates: [String] = []
        if let locale, !locale.isEmpty {
            let normalized = locale.replacingOccurrences(of: "_", with: "-")
            candidates.append(normalized)
            if let language = normalized.split(separator: "-").first, language.count < normalized.count {
                candidates.append(String(language))
            }
        }
        for fallback in ["default", "en"] where !candidates.contains(fallback) { candidates.append(fallback) }
        return candidates
    }

    /// Replaces each `{name}` with its value and each `{name|fallback}` with its value or,
    /// where that is missing or empty, `fallback`; unknown names become empty text.
    static func fill(_ text: String, _ value: (String) -> String?) -> String {
        var result = ""
        var rest = text[...]
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else {
                rest = rest[open...]
                break
            }
            let inside = rest[rest.index(after: open)..<close]
            let name = inside.prefix { $0 != "|" }
            if name.isEmpty || name.contains(where: { $0.isWhitespace || $0 == "{" }) {
                result += rest[open...open]
                rest = rest[rest.index(after: open)...]
                continue
            }
            let filled = value(String(name)) ?? ""
            result += filled.isEmpty && name.count < inside.count ? String(inside.dropFirst(name.count + 1)) : filled
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }
}
