#include "apps/builtin_apps.h"
#include "common/member_main.h"
#include "scheduler/scheduler.h"

int main(int argc, char** argv) {
  const strads::AppRegistry apps = strads::BuiltinApps();
  return strads::MemberMain<strads::Scheduler>(argc, argv, "scheduler", apps);
}
