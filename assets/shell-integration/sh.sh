# Switchboard command wrapper for POSIX shells without hooks (sh, dash, ash, ksh):
# the shell starts as `ENV=<this file> sh -i`, and every command is typed as
# `__sb_exec '<command>'` (see wrapCommand in src/core/shellIntegration.ts).
# Prints the marks of src/core/marks.ts. `set -u` safe.

# Take the nonce out of the environment so no child process sees it.
__sb_nonce=${SWITCHBOARD_NONCE-}
unset SWITCHBOARD_NONCE

# Give ENV back to the person, so nested shells start as they normally would, then read their
# ENV file (POSIX: ENV undergoes parameter expansion, e.g. ENV='$HOME/.shrc').
if [ -n "${SWITCHBOARD_USER_ENV+x}" ]; then
  ENV=$SWITCHBOARD_USER_ENV
  export ENV
  unset SWITCHBOARD_USER_ENV
  eval "__sb_f=\"$ENV\""
  if [ -n "$__sb_f" ] && [ -r "$__sb_f" ]; then . "$__sb_f"; fi
  unset __sb_f
else
  unset ENV
fi

__sb_host=$(uname -n 2>/dev/null || hostname 2>/dev/null)

# OSC 7. Paths of safe characters go as they are; others are percent-encoded byte by byte
# (with od: POSIX sh has no byte-wise string access). Each byte becomes %xx, then %2f -> /.
__sb_cwd() {
  case $PWD in
    *[!A-Za-z0-9/._~-]*)
      __sb_p=$(printf '%s' "$PWD" | od -An -tx1 -v | tr -d ' \n' | sed 's/../%&/g; s/%2f/\//g')
      ;;
    *) __sb_p=$PWD ;;
  esac
  printf '\033]7;file://%s%s\007' "$__sb_host" "$__sb_p"
}

# Runs one command line (possibly multi-line) in this shell, so `cd` and variables stick,
# bracketed by C and OSC 7 + D;<exit>. $? afterwards is the command's status.
__sb_exec() {
  printf '\033]133;C;nonce=%s\007' "$__sb_nonce"
  __sb_cmd=$1
  shift # so the command's own $1, $@ are not our argument
  # Ctrl-C: an interactive sh abandons the whole line, this function included, so D would
  # never come. Print it from the trap, then re-raise with the default action to abandon the
  # line as usual (a loop still stops). Replaces a person's own INT trap while a command runs.
  trap '__sb_done 130; trap - INT; kill -INT $$' INT
  eval "$__sb_cmd"
  __sb_st=$?
  trap - INT
  __sb_done "$__sb_st"
  return "$__sb_st"
}

__sb_done() {
  __sb_cwd
  printf '\033]133;D;%s;nonce=%s\007' "$1" "$__sb_nonce"
}

if [ -n "$__sb_nonce" ]; then
  # A/B around the prompt. The escape bytes are embedded at assignment (built with printf:
  # POSIX sh has no $'\e'); they contain no `$` or backquote, so shells that expand
  # parameters in PS1 (dash, ksh) print them unchanged.
  __sb_A=$(printf '\033]133;A;nonce=%s\007' "$__sb_nonce")
  __sb_B=$(printf '\033]133;B;nonce=%s\007' "$__sb_nonce")
  __sb_ps1="$__sb_A${PS1-\$ }$__sb_B"
  unset PS1 # drops an export: the wrapped PS1 holds the nonce
  PS1=$__sb_ps1
  __sb_cwd # before the first prompt: OSC 7, then A ... B
fi
