extension PolicyDocument {
    /// What this one file says for `subject`, key by key:
    /// - "who": a matching `[user:]` section, else the stricter of all matching `[group:]` sections;
    /// - "what": the stricter of a matching `[app:]` and the matching `[exe:]` sections (a link and its
    ///   target both match);
    /// - both who and what apply (the stricter wins); `[defaults]` only for keys neither sets.
    func resolved(for subject: PolicySubject) -> PolicyResolved {
        var defaults = PolicyResolved.empty, groups = PolicyResolved.empty, user = PolicyResolved.empty
        var app = PolicyResolved.empty, exe = PolicyResolved.empty
        for entry in sections {
            let settings = PolicyResolved(entry.settings, subject: subject)
            switch entry.section {
            case .defaults:
                defaults = settings
            case .group(let name) where subject.groups.contains(name):
                groups = groups.tightened(with: settings)
            case .user(let name) where name == subject.user:
                user = settings
            case .app(let id) where id == subject.appID:
                app = settings
            case .executable(let path) where Self.executable(subject.executable, matches: path):
                // A link and its target are two sections for one executable: the stricter of them.
                exe = exe.tightened(with: settings)
            default:
                break
            }
        }
        let who = user.filling(from: groups)
        let what = app.tightened(with: exe)
        return who.tightened(with: what).filling(from: defaults)
    }

    static func executable(_ running: String?, matches written: String) -> Bool {
        guard let running else { return false }
        return running == written || PolicyPath.realPath(written) == running
    }
}
