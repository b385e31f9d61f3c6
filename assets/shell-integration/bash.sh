# Switchboard shell integration for bash, run as `bash --init-file <this file> -i`.
# Prints the marks described in src/core/marks.ts. Never edits the person's files.
# `builtin local x="$1"`: quoted, because with the `builtin` prefix bash word-splits it.
# Everything here is `set -u` safe (the person's rc may turn it on before our code runs).
#
# Re-arming (docs/design.md §2.5): the session types
#   ` builtin source <this file> --rearm <nonce> $?`
# into a shell at its prompt whose marks were lost (`exec bash`, an rc file that replaced both
# PS1 and PROMPT_COMMAND). That skips the rc files, installs everything again (idempotently) and
# reports the previous command's status in OSC 633;R (see src/core/shell/marks.ts).

__sb_rearm_st=''
if [[ ${1-} == --rearm ]]; then
  __sb_nonce=${2-}
  __sb_rearm_st=${3-}
  __sb_rearm_line=1
else
  __sb_rearm_line=0
  # Take the nonce before any rc file runs, so no process started from an rc sees it.
  __sb_nonce=${SWITCHBOARD_NONCE-}
  builtin unset SWITCHBOARD_NONCE
fi

# --init-file replaces ~/.bashrc (and -l can't be combined with it), so read what bash would
# have read. Not /etc/bash.bashrc: bash built with SYS_BASHRC (Debian, Arch) has already run it
# before this file, and builds without it never read it.
if [[ $__sb_rearm_line == 1 ]]; then
  : # the shell has read its rc files already
elif [[ ${SWITCHBOARD_LOGIN-} == 1 ]]; then
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
__sb_z=x        # operand of the side-effect-only expansions in PS0 and PS1 (see below)
__sb_armed=0    # DEBUG-trap mode only: 1 between our last PROMPT_COMMAND entry and the next command
__sb_late=([1]=1) # indexed by __sb_ran: set only when a command started and no __sb_precmd ended it
__sb_rn=__sb_rearm
# The output-start mark, printed as is from PS0 (the nonce is [A-Za-z0-9_-]: nothing to escape).
__sb_cmark=$'\e]133;C;nonce='"$__sb_nonce"$'\a'
# What we put around the person's PS1 and PS2, as text, so it can be taken out again before
# wrapping anew: a virtualenv's activate (or an rc file) prefixes PS1, wrapped as it is.
# __sb_head is the safety net for a lost PROMPT_COMMAND (an agent's `PROMPT_COMMAND=…`, an rc
# file assigning it): PS1 is expanded after PROMPT_COMMAND ran, with $? still the command's
# status. When __sb_precmd did not run (__sb_ran still 1), it prints OSC 7 and D from a command
# substitution (a fork, only in this case), and adds __sb_rearm as PROMPT_COMMAND[99] (bash
# 5.1+ runs every element), which puts our entries back at the next prompt; `${__sb_rn#…}`
# swallows the assigned value. Then the arithmetic clears __sb_ran. Nothing runs otherwise.
__sb_head='\[${__sb_late[__sb_ran]+$(__sb_late_d "$?")${__sb_rn#${PROMPT_COMMAND[99]:=__sb_rearm}}}${__sb_z:__sb_ran=0:0}\]'
__sb_amark="\[\e]133;A;nonce=${__sb_nonce}\a\]"
__sb_bmark="\[\e]133;B;nonce=${__sb_nonce}\a\]"
__sb_fmark="\[\e]633;F;${__sb_nonce}\a\]"
__sb_gmark="\[\e]633;G;${__sb_nonce}\a\]"

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

# The D that __sb_precmd did not print, from PS1 (see __sb_head); runs in a subshell.
__sb_late_d() {
  __sb_cwd
  builtin printf '\e]133;D;%s;nonce=%s\a' "$1" "$__sb_nonce"
}

# Last entry of PROMPT_COMMAND: the person's PROMPT_COMMAND may have rebuilt PS1; wrap it in
# A/B, and PS2 in F/G (inside \[ \] so readline does not count them as visible characters).
__sb_postcmd() {
  builtin local st="$?" p
  if [[ ${PS1-} != "$__sb_ps1" ]]; then
    p=${PS1-}
    p=${p//"$__sb_head"/}
    p=${p//"$__sb_amark"/}
    p=${p//"$__sb_bmark"/}
    __sb_ps1="${__sb_head}${__sb_amark}${p}${__sb_bmark}"
    PS1=$__sb_ps1
    builtin export -n PS1 2>/dev/null # activate exports it; ours holds the nonce
  fi
  if [[ ${PS2-} != "$__sb_ps2" ]]; then
    p=${PS2-}
    p=${p//"$__sb_fmark"/}
    p=${p//"$__sb_gmark"/}
    __sb_ps2="${__sb_fmark}${p}${__sb_gmark}"
    PS2=$__sb_ps2
    builtin export -n PS2 2>/dev/null
  fi
  __sb_armed=1
  builtin return "$st"
}

__sb_new_pc=0
if ((BASH_VERSINFO[0] > 5 || (BASH_VERSINFO[0] == 5 && BASH_VERSINFO[1] >= 1))); then __sb_new_pc=1; fi

# Chain, never replace, the person's PROMPT_COMMAND: ours first (status) and last (PS1). Run
# again after the person (or an rc file) replaced it: our old entries are dropped first.
__sb_hook() {
  builtin local e
  if [[ $__sb_new_pc == 1 ]]; then
    # bash 5.1+: PROMPT_COMMAND may be an array; this also turns a string into one element.
    builtin local -a pc
    pc=()
    for e in ${PROMPT_COMMAND[@]+"${PROMPT_COMMAND[@]}"}; do
      case $e in __sb_precmd | __sb_postcmd | __sb_rearm) ;; *) pc+=("$e") ;; esac
    done
    PROMPT_COMMAND=(__sb_precmd ${pc[@]+"${pc[@]}"} __sb_postcmd)
  else
    # Newlines, not `;`, so a trailing `;` or `&` in the person's string stays valid.
    e=${PROMPT_COMMAND-}
    e=${e//__sb_precmd$'\n'/}
    e=${e//$'\n'__sb_postcmd/}
    PROMPT_COMMAND=$'__sb_precmd\n'"$e"$'\n__sb_postcmd'
  fi
  builtin export -n PROMPT_COMMAND 2>/dev/null
}

# Added to PROMPT_COMMAND by PS1 when our entries were gone (see __sb_head): it runs after the
# person's entries, so $? is no longer the command's and PS1 still prints this prompt's D.
__sb_rearm() {
  builtin local st="$?"
  __sb_hook
  __sb_postcmd
  builtin return "$st"
}

__sb_hook

# SWITCHBOARD_BASH_PREEXEC=debug forces the bash < 4.4 path, so tests can cover it on a new bash.
# Re-arming the same shell keeps the mode it started in.
if [[ -z ${__sb_mode-} ]]; then
  __sb_mode=ps0
  if ((BASH_VERSINFO[0] < 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] < 4))) ||
    [[ ${SWITCHBOARD_BASH_PREEXEC-} == debug ]]; then
    __sb_mode=debug
  fi
fi
builtin unset SWITCHBOARD_BASH_PREEXEC

if [[ $__sb_mode == ps0 ]]; then
  # PS0 is expanded after a command line is read and before it runs, never for an empty line.
  # `${__sb_z:__sb_ran=1:0}` expands to nothing; its arithmetic offset sets __sb_ran=1 in
  # this shell (a $(...) could not: it runs in a subshell). No command substitution at all:
  # PS0 forks nothing. Re-arming keeps a PS0 that still has it.
  __sb_ps0='${__sb_z:__sb_ran=1:0}${__sb_cmark}'
  if [[ ${PS0-} != *"$__sb_ps0"* ]]; then PS0="${PS0-}$__sb_ps0"; fi
else
  # bash < 4.4 (macOS /bin/bash 3.2): no PS0. The first DEBUG trap after the prompt (armed by
  # __sb_postcmd, disarmed by __sb_precmd) marks the start. Known gap: a line that runs no
  # simple command in this shell, like `(exit 1)`, gets no C and so no D.
  __sb_debug() {
    [[ $__sb_armed == 1 ]] || return 0
    case $BASH_COMMAND in __sb_precmd* | __sb_postcmd* | __sb_rearm*) return 0 ;; esac
    __sb_armed=0
    __sb_ran=1
    builtin printf '%s' "$__sb_cmark"
  }
  # Keep a DEBUG trap the person already has: run it after ours (parsing as VS Code does).
  builtin eval "__sb_terms=( $(builtin trap -p DEBUG) )"
  if [[ ${__sb_terms[2]-} == __sb_debug* ]]; then
    : # still ours (re-arming)
  elif [[ -n ${__sb_terms[2]-} ]]; then
    builtin trap "__sb_debug; ${__sb_terms[2]}" DEBUG
  else
    builtin trap '__sb_debug' DEBUG
  fi
  builtin unset __sb_terms
fi

# These now embed the nonce (or call our functions): keep them out of child environments.
builtin export -n PS1 PS2 PS0 PROMPT_COMMAND 2>/dev/null
__sb_postcmd

if [[ $__sb_rearm_line == 1 ]]; then
  # This line is a command of its own: it gets no D, and the one before it is reported as R.
  # Its history entry (it holds the nonce) goes, unless history skipped it already.
  __sb_ran=0
  __sb_first=0
  if [[ -o history ]] && ! [[ :${HISTCONTROL-}: == *:ignorespace:* || :${HISTCONTROL-}: == *:ignoreboth:* ]]; then
    builtin history -d -1 2>/dev/null
  fi
  __sb_cwd
  builtin printf '\e]633;R;%s;%s\a' "$__sb_rearm_st" "$__sb_nonce"
fi
builtin unset __sb_rearm_st __sb_rearm_line
