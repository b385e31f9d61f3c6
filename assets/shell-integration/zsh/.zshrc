# Switchboard: the person's .zshrc (see .zshenv), then the marks of src/core/marks.ts.
__sb_user_dotdir
if [[ -r ${ZDOTDIR:-$HOME}/.zshrc ]]; then builtin source -- "${ZDOTDIR:-$HOME}/.zshrc"; fi
__sb_user_zdotdir=${ZDOTDIR-}
# For good: zsh now reads .zlogin from the person's own ZDOTDIR (or $HOME) itself.
__sb_restore_dotdir

if [[ -n $__sb_nonce ]]; then
  typeset -g __sb_ran=0 __sb_ps1=''

  # VS Code's escaping for OSC 633;E: `\` -> `\\`, `;` and chars < 0x20 -> \xNN. Sets REPLY.
  __sb_escape() {
    emulate -L zsh
    local LC_ALL=C s=$1 i
    s=${s//\\/\\\\}
    s=${s//;/\\x3b}
    if [[ $s == *[[:cntrl:]]* ]]; then
      for ((i = 1; i < 32; i++)); do s=${s//${(#)i}/\\x${(l:2::0:)$(( [##16] i ))}}; done
    fi
    REPLY=$s
  }

  # OSC 7 with $PWD percent-encoded byte by byte.
  __sb_cwd() {
    emulate -L zsh
    local LC_ALL=C p=$PWD out='' c i
    if [[ $p == *[^A-Za-z0-9/._~-]* ]]; then
      for ((i = 1; i <= ${#p}; i++)); do
        c=${p[i]}
        if [[ $c == [A-Za-z0-9/._~-] ]]; then out+=$c; else out+=%${(l:2::0:)$(( [##16] #c ))}; fi
      done
    else
      out=$p
    fi
    printf '\e]7;file://%s%s\a' "$HOST" "$out"
  }

  # preexec runs only for a non-empty command line; $1 is the line as typed.
  __sb_preexec() {
    emulate -L zsh
    __sb_ran=1
    __sb_escape "$1"
    printf '\e]633;E;%s;%s\a\e]133;C;nonce=%s\a' "$REPLY" "$__sb_nonce" "$__sb_nonce"
  }

  # Must run before other precmd functions: $? is still the command's own status here.
  __sb_precmd() {
    local st=$?
    emulate -L zsh
    if (( __sb_ran )); then
      __sb_ran=0
      __sb_cwd
      printf '\e]133;D;%s;nonce=%s\a' "$st" "$__sb_nonce"
    fi
    # zsh draws PROMPT_SP (the `%` after output without a final newline) before precmd, i.e.
    # inside the command's output; we turned it off and draw the same thing after D instead.
    if (( __sb_promptsp )); then
      local mark=${PROMPT_EOL_MARK-%B%S%#%s%b}
      local plain=${(%)${mark//\%[BbSsUu]/}}
      printf '%s%*s\r%*s\r' "${(%)mark}" $(( COLUMNS - 1 )) '' ${#plain} ''
    fi
    # Empty Enter / Ctrl-C at the prompt: preexec did not run, so neither C nor D.
    return st
  }

  # Runs after the person's precmd hooks, which may rebuild PS1 (themes do): wrap it in A/B,
  # inside %{ %} so zle does not count them as visible characters. RPROMPT is left alone.
  __sb_prompt() {
    local st=$?
    emulate -L zsh
    if [[ $PS1 != "$__sb_ps1" ]]; then
      __sb_ps1="%{"$'\e]133;A;nonce='"$__sb_nonce"$'\a'"%}$PS1%{"$'\e]133;B;nonce='"$__sb_nonce"$'\a'"%}"
      PS1=$__sb_ps1
    fi
    return st
  }

  __sb_promptsp=0
  if [[ -o promptsp && -o promptcr ]]; then
    __sb_promptsp=1
    unsetopt promptsp
  fi

  autoload -Uz add-zsh-hook
  add-zsh-hook preexec __sb_preexec
  add-zsh-hook precmd __sb_prompt
  add-zsh-hook precmd __sb_precmd
  # ...and move __sb_precmd to the front (add-zsh-hook only appends).
  precmd_functions=(__sb_precmd ${precmd_functions:#__sb_precmd})
  # Wrapped PS1 embeds the nonce: never pass it to child processes.
  typeset +x PS1
  __sb_prompt
  __sb_cwd # before the first prompt: OSC 7, then A ... B
fi
