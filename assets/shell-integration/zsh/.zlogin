# Switchboard: only reached when .zshrc did not run (a non-interactive login shell), because
# .zshrc hands ZDOTDIR back for good. Source the person's .zlogin and restore their ZDOTDIR.
__sb_user_dotdir
if [[ -r ${ZDOTDIR:-$HOME}/.zlogin ]]; then builtin source -- "${ZDOTDIR:-$HOME}/.zlogin"; fi
__sb_restore_dotdir
