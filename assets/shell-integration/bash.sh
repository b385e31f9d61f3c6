# Switchboard shell integration for bash, run as `bash --init-file <this file> -i`.
# Prints the marks described in src/core/marks.ts. Never edits the person's files.
# `builtin local x="$1"`: quoted, because with the `builtin` prefix bash word-splits it.
# Everything here is `set -u` safe (the person's rc may turn it on before our code runs).

# Take the nonce before any rc file runs, so no process started from an rc sees it.
__sb_nonce=${SWITCHBOARD_NONCE-}
builtin unset SWITCHBOARD_NONCE

# --init-file replaces ~/.bashrc (and -l can't be combined with it), so read what bash would
# have read. Not /etc/bash.bashrc: bash built with SYS_BASHRC (Debian, Arch) has already run it
# before this file, and builds without it never read it.
if [[ ${SWITCHBOARD_LOGIN-} == 1 ]]; then
  builtin unset SWITCHBOARD_LOGIN
  if [[ -r /etc/profile ]]; then builtin source /etc/profile; fi
  if [[ -r ~/.bash_profile ]]; then builtin source ~/.bash_profile
  elif [[ -r ~/.bash_login ]]; then builtin source ~/.bash_login
  elif [[ -r ~/.profile ]]; then builtin source ~/.profile
  fi
else
  if [[ -r ~/.bashrc ]]; then builtin source ~/.bashrc; fi
fi

# No nonce (e.g. this file sourced by hand): marks would be rejected anyway.
if [[ -z $__sb_nonce ]]; then builtin return 0; fi

__sb_ran=0      # 1 once PS0 saw a command start; cleared when its D is printed
__sb_first=1    # the first prompt gets OSC 7 but no D
__sb_ps1=''     # the PS1 we built, to notice when the person (or a theme) replaces it
__sb_ps2=''     # the same for PS2 (continuation lines)
__sb_z=x        # operand of the side-effect-only expansion in PS0 (see below)
__sb_armed=0    # DEBUG-trap mode only: 1 between our last PROMPT_COMMAND entry and the next command
# The output-start mark, printed as is from PS0 (the nonce is [A-Za-z0-9_-]: nothing to escape).
__sb_cmark=$'\e]133;C;nonce='"$__sb_nonce"$'\a'

# No E mark (the command line) in bash: taking it from `history 1` costs a fork per command
# (two with PS0's command substitution), several milliseconds on a busy machine. The hub reads
# the command line from the screen instead, between the prompt's B mark and the C mark, with
# continuation prompts (PS2, wrapped in F/G marks below) left out. See docs/decisions.md.

# OSC 7 with $PWD percent-encoded byte by byte (fast path when nothing needs encoding).
__sb_cwd() {
  builtin local LC_ALL=C p="${PWD-}" out='' c i
  if [[ $p == *[!A-Za-z0-9/._~-]* ]]; then
    for ((i = 0; i < ${#p}; i++)); do
      c=${p:i:1}
      case $c in
        [A-Za-z0-9/._~-]) out+=$c ;;
        *) builtin printf -v c '%%%02X' "'$c"; out+=$c ;;
      esac
    done
  else
    out=$p
  fi
  builtin printf '\e]7;file://%s%s\a' "${HOSTNAME-}" "$out"
}

# First entry of PROMPT_COMMAND: $? is still the command's own status here.
__sb_precmd() {
  builtin local st="$?"
  if [[ $__sb_ran == 1 ]]; then
    __sb_ran=0
    __sb_cwd
    builtin printf '\e]133;D;%s;nonce=%s\a' "$st" "$__sb_nonce"
  elif [[ $__sb_first == 1 ]]; then
    __sb_cwd
  fi
  __sb_first=0
  __sb_armed=0
  # Empty Enter / Ctrl-C at the prompt: PS0 did not run, so neither C nor D.
  builtin return "$st" # the person's PROMPT_COMMAND still sees the command's $?
}

# Last entry of PROMPT_COMMAND: the person's PROMPT_COMMAND may have rebuilt PS1; wrap it in
# A/B, and PS2 in F/G (inside \[ \] so readline does not count them as visible characters).
__sb_postcmd() {
  builtin local st="$?"
  if [[ ${PS1-} != "$__sb_ps1" ]]; then
    __sb_ps1="\[\e]133;A;nonce=${__sb_nonce}\a\]${PS1-}\[\e]133;B;nonce=${__sb_nonce}\a\]"
    PS1=$__sb_ps1
  fi
  if [[ ${PS2-} != "$__sb_ps2" ]]; then
    __sb_ps2="\[\e]633;F;${__sb_nonce}\a\]${PS2-}\[\e]633;G;${__sb_nonce}\a\]"
    PS2=$__sb_ps2
  fi
  __sb_armed=1
  builtin return "$st"
}

# Chain, never replace, the person's PROMPT_COMMAND: ours first (status) and last (PS1).
if ((BASH_VERSINFO[0] > 5 || (BASH_VERSINFO[0] == 5 && BASH_VERSINFO[1] >= 1))); then
  # bash 5.1+: PROMPT_COMMAND may be an array; this also turns a string into one element.
  PROMPT_COMMAND=(__sb_precmd "${PROMPT_COMMAND[@]}" __sb_postcmd)
else
  # Newlines, not `;`, so a trailing `;` or `&` in the person's string stays valid.
  PROMPT_COMMAND=$'__sb_precmd\n'"${PROMPT_COMMAND-}"$'\n__sb_postcmd'
fi

# SWITCHBOARD_BASH_PREEXEC=debug forces the bash < 4.4 path, so tests can cover it on a new bash.
__sb_mode=ps0
if ((BASH_VERSINFO[0] < 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] < 4))) ||
  [[ ${SWITCHBOARD_BASH_PREEXEC-} == debug ]]; then
  __sb_mode=debug
fi
builtin unset SWITCHBOARD_BASH_PREEXEC

if [[ $__sb_mode == ps0 ]]; then
  # PS0 is expanded after a command line is read and before it runs, never for an empty line.
  # `${__sb_z:__sb_ran=1:0}` expands to nothing; its arithmetic offset sets __sb_ran=1 in
  # this shell (a $(...) could not: it runs in a subshell). No command substitution at all:
  # PS0 forks nothing.
  PS0="${PS0-}"'${__sb_z:__sb_ran=1:0}${__sb_cmark}'
else
  # bash < 4.4 (macOS /bin/bash 3.2): no PS0. The first DEBUG trap after the prompt (armed by
  # __sb_postcmd, disarmed by __sb_precmd) marks the start. Known gap: a line that runs no
  # simple command in this shell, like `(exit 1)`, gets no C and so no D.
  __sb_debug() {
    [[ $__sb_armed == 1 ]] || return 0
    case $BASH_COMMAND in __sb_precmd* | __sb_postcmd*) return 0 ;; esac
    __sb_armed=0
    __sb_ran=1
    builtin printf '%s' "$__sb_cmark"
  }
  # Keep a DEBUG trap the person already has: run it after ours (parsing as VS Code does).
  builtin eval "__sb_terms=( $(builtin trap -p DEBUG) )"
  if [[ -n ${__sb_terms[2]-} ]]; then
    builtin trap "__sb_debug; ${__sb_terms[2]}" DEBUG
  else
    builtin trap '__sb_debug' DEBUG
  fi
  builtin unset __sb_terms
fi

# These now embed the nonce (or call our functions): keep them out of child environments.
builtin export -n PS1 PS2 PS0 PROMPT_COMMAND 2>/dev/null
__sb_postcmd
