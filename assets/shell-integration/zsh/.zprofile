# Switchboard: the person's .zprofile, with their ZDOTDIR in place (see .zshenv).
__sb_user_dotdir
if [[ -r ${ZDOTDIR:-$HOME}/.zprofile ]]; then builtin source -- "${ZDOTDIR:-$HOME}/.zprofile"; fi
__sb_user_zdotdir=${ZDOTDIR-}
ZDOTDIR=$__sb_zdotdir
