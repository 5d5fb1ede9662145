#include "apps/builtin_apps.h"
#include "common/member_main.h"
#include "worker/worker.h"

int main(int argc, char** argv) {
  const strads::AppRegistry apps = strads::BuiltinApps();
  return strads::MemberMain<strads::Worker>(argc, argv, "worker", apps);
}
