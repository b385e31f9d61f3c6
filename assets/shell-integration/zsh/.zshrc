# Switchboard: the person's .zshrc (see .zshenv), then the marks of src/core/marks.ts.
__sb_user_dotdir
if [[ -r ${ZDOTDIR:-$HOME}/.zshrc ]]; then builtin source -- "${ZDOTDIR:-$HOME}/.zshrc"; fi
__sb_user_zdotdir=${ZDOTDIR-}
# For good: zsh now reads .zlogin from the person's own ZDOTDIR (or $HOME) itself.
__sb_restore_dotdir

builtin source -- "$__sb_zdotdir/integration.zsh"
