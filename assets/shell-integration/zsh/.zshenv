# Switchboard private ZDOTDIR (see src/core/shellIntegration.ts). zsh reads every startup file
# from $ZDOTDIR, which points here; each of ours sources the person's real counterpart with their
# ZDOTDIR in place (their files may use $ZDOTDIR), then points back here for the next file.
# SWITCHBOARD_ZDOTDIR is the person's ZDOTDIR ('' = unset, i.e. $HOME).

typeset -g __sb_zdotdir=$ZDOTDIR
typeset -g __sb_user_zdotdir=${SWITCHBOARD_ZDOTDIR-}
# Take the nonce before any of the person's files run, so no child process sees it.
typeset -g __sb_nonce=${SWITCHBOARD_NONCE-}
unset SWITCHBOARD_NONCE

# Put the person's ZDOTDIR back (exported, as it came from the environment) or unset it.
__sb_user_dotdir() {
  if [[ -n $__sb_user_zdotdir ]]; then export ZDOTDIR=$__sb_user_zdotdir; else unset ZDOTDIR; fi
}
# For good: zsh then reads any later startup files (.zlogin, .zlogout) from the person's dir.
__sb_restore_dotdir() {
  __sb_user_dotdir
  unset SWITCHBOARD_ZDOTDIR
  unfunction __sb_user_dotdir __sb_restore_dotdir
}

__sb_user_dotdir
if [[ -r ${ZDOTDIR:-$HOME}/.zshenv ]]; then builtin source -- "${ZDOTDIR:-$HOME}/.zshenv"; fi
# Their .zshenv may move ZDOTDIR (e.g. to ~/.config/zsh): zsh would read the rest from there.
__sb_user_zdotdir=${ZDOTDIR-}
if [[ -o rcs ]] && [[ -o interactive || -o login ]]; then
  ZDOTDIR=$__sb_zdotdir # come back here for .zprofile / .zshrc / .zlogin
else
  __sb_restore_dotdir # `zsh -c` children and NO_RCS: nothing more of ours will run
fi
